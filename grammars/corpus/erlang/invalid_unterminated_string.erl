-module(bad).
-export([f/0]).

f() -> io:format("never closed).
