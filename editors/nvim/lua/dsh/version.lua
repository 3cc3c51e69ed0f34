return "0.1.0"
