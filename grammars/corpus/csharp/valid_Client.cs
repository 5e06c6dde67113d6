using System.Net.Http;
using System.Threading;
using System.Threading.Tasks;

namespace Shop.Net;

public sealed class Client : IDisposable
{
    private readonly HttpClient _http = new();

    public async Task<string?> FetchAsync(string url, CancellationToken ct = default)
    {
        try
        {
            using var response = await _http.GetAsync(url, ct);
            return response.IsSuccessStatusCode
                ? await response.Content.ReadAsStringAsync(ct)
                : null;
        }
        catch (HttpRequestException ex) when (ex.StatusCode is not null)
        {
            return $"error {(int)ex.StatusCode}";
        }
    }

    public void Dispose() => _http.Dispose();
}
