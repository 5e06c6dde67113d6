package main

import "fmt"

func main() {
	name := "world
	fmt.Println("hello", name)
}
