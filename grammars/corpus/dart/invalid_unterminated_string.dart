void main() {
  var s = 'never closed;
  print(s);
}
