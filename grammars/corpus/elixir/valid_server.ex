defmodule Counter do
  use GenServer

  def start_link(initial \\ 0), do: GenServer.start_link(__MODULE__, initial, name: __MODULE__)

  @impl true
  def init(n), do: {:ok, n}

  @impl true
  def handle_call(:get, _from, n), do: {:reply, n, n}

  @impl true
  def handle_cast({:add, k}, n) do
    case k do
      k when is_integer(k) -> {:noreply, n + k}
      _ -> {:noreply, n}
    end
  end

  def safe_div(a, b) do
    with {:ok, a} <- validate(a), {:ok, b} <- validate(b), true <- b != 0 do
      {:ok, a / b}
    else
      _ -> {:error, :invalid}
    end
  end

  defp validate(x) when is_number(x), do: {:ok, x}
  defp validate(_), do: :error
end
