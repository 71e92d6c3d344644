openclaw wiki status
