locals {
  a = 
  b = 1 +
}
