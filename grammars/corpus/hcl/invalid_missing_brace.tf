resource "aws_s3_bucket" "b" {
  bucket = "x"
  tags = {
    a = "b"
}
