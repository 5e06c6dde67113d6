namespace Geometry
{
    public interface IShape
    {
        double Area { get; }
    }

    public struct Circle : IShape
    {
        public double Radius { get; init; }
        public double Area => System.Math.PI * Radius * Radius;
    }

    public static class Describe
    {
        public static string Of(IShape shape) => shape switch
        {
            Circle { Radius: > 10 } => "big circle",
            Circle c => $"circle {c.Radius}",
            _ => "unknown",
        };

        public static T Max<T>(T a, T b) where T : System.IComparable<T>
        {
            return a.CompareTo(b) >= 0 ? a : b;
        }
    }
}
