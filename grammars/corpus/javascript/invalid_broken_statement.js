function f(x) {
  if (x > ) {
    return 1;
  }
}
