variable "region" {
  default = "never closed
}
