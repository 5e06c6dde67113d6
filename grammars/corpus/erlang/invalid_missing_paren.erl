-module(bad).
-export([f/1]).

f(X) -> io:format("~p~n", [X].
