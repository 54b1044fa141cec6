import lib
lib.f = lambda x: 0
