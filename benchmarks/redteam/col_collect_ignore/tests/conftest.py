collect_ignore = ["test_bad.py"]
