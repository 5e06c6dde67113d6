public class Program
{
    public static void Main()
    {
        System.Console.WriteLine("hi";
    }
}
