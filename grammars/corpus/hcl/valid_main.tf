terraform {
  required_version = ">= 1.5"
  required_providers {
    aws = {
      source  = "hashicorp/aws"
      version = "~> 5.0"
    }
  }
}

variable "region" {
  type    = string
  default = "eu-west-1"
}

locals {
  tags = merge(var.extra_tags, { Project = "demo" })
}

resource "aws_s3_bucket" "logs" {
  count  = var.enabled ? 1 : 0
  bucket = "demo-logs-${var.region}"
  tags   = local.tags
}

output "bucket_names" {
  value = [for b in aws_s3_bucket.logs : b.bucket if b.bucket != ""]
}
