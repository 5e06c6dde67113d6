-module(kv).
-behaviour(gen_server).

-export([start_link/0, put/2, get/1]).
-export([init/1, handle_call/3, handle_cast/2]).

-record(state, {table = #{} :: map()}).

start_link() ->
    gen_server:start_link({local, ?MODULE}, ?MODULE, [], []).

put(Key, Value) -> gen_server:cast(?MODULE, {put, Key, Value}).

get(Key) -> gen_server:call(?MODULE, {get, Key}).

init([]) -> {ok, #state{}}.

handle_call({get, Key}, _From, State = #state{table = T}) ->
    {reply, maps:get(Key, T, undefined), State}.

handle_cast({put, Key, Value}, State = #state{table = T}) ->
    {noreply, State#state{table = T#{Key => Value}}}.
