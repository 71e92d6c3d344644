openclaw wiki apply metadata entity.alpha --question Is\ the\ backup\ window\ long\ enough\? --clear-confidence --status review
