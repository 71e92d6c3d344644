openclaw wiki get concepts/大语言模型概述 --json
