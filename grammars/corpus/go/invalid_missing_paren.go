package main

import "fmt"

func main() {
	x := compute(3, 4
	fmt.Println(x)
}

func compute(a, b int) int {
	return a * b
}
