-module(proc).
-export([start/0, loop/1]).

-define(TIMEOUT, 5000).

start() ->
    Pid = spawn(?MODULE, loop, [0]),
    Pid ! {add, 5},
    Pid ! {get, self()},
    receive
        {value, V} -> io:format("value: ~p~n", [V])
    after ?TIMEOUT ->
        timeout
    end.

loop(N) ->
    receive
        {add, K} -> loop(N + K);
        {get, From} -> From ! {value, N}, loop(N);
        stop -> ok
    end.
