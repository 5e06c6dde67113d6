public class Unterminated {
    String s = "oops;
    int n = 3;
}
