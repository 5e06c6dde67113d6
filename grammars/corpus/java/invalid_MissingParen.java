public class MissingParen {
    public static void main(String[] args) {
        System.out.println("hi";
    }
}
