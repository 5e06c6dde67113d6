int f(int x) {
  var y = x + * 2;
  return y;
}
