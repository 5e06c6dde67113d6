import java.io.IOException;
import java.util.concurrent.Callable;

/** Retries a call with exponential backoff. */
public final class Retry<T> {
    private final int attempts;

    public Retry(int attempts) {
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts must be >= 1");
        }
        this.attempts = attempts;
    }

    @SuppressWarnings("unchecked")
    public T call(Callable<T> task) throws Exception {
        Exception last = null;
        for (int i = 0; i < attempts; i++) {
            try {
                return task.call();
            } catch (IOException e) {
                last = e;
                Thread.sleep(100L << i);
            } finally {
                System.out.println("attempt " + i);
            }
        }
        throw last;
    }
}
