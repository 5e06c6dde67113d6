-module(bad).
-export([f/1]).

f(X) -> X + * 2.
