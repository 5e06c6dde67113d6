public class Program
{
    private string s = "never closed;
    private int n = 1;
}
