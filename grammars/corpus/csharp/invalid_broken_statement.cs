public class Program
{
    int F(int x)
    {
        if (x > ) { return 1; }
        return x;
    }
}
