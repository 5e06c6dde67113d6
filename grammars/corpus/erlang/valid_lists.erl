-module(mylists).
-export([sum/1, evens/1, classify/1, safe_div/2]).

%% Sum a list with an accumulator.
sum(L) -> sum(L, 0).

sum([], Acc) -> Acc;
sum([H | T], Acc) -> sum(T, Acc + H).

evens(L) -> [X || X <- L, X rem 2 =:= 0].

classify(N) when N < 0 -> negative;
classify(0) -> zero;
classify(_) -> positive.

safe_div(A, B) ->
    try A div B of
        Q -> {ok, Q}
    catch
        error:badarith -> {error, divide_by_zero}
    end.
