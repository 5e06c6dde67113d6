void main() {
  print('hello';
}
