function greet(name) {
  console.log("hello", name;
}
greet("x");
