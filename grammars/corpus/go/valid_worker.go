package worker

import (
	"context"
	"time"
)

type Job func(ctx context.Context) error

func Run(ctx context.Context, jobs <-chan Job, results chan<- error) {
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case j, ok := <-jobs:
			if !ok {
				return
			}
			go func(j Job) {
				results <- j(ctx)
			}(j)
		case <-ticker.C:
			continue
		}
	}
}

func Classify(n int) string {
	switch {
	case n < 0:
		return "negative"
	case n == 0:
		return "zero"
	default:
		return "positive"
	}
}
