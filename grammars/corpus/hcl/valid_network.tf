module "vpc" {
  source = "terraform-aws-modules/vpc/aws"
  cidr   = "10.0.0.0/16"
  azs    = ["eu-west-1a", "eu-west-1b"]
}

data "aws_ami" "ubuntu" {
  most_recent = true
  owners      = ["099720109477"]

  filter {
    name   = "name"
    values = ["ubuntu/images/*"]
  }
}

resource "aws_instance" "web" {
  ami           = data.aws_ami.ubuntu.id
  instance_type = "t3.micro"
  user_data     = <<-EOT
    #!/bin/bash
    echo hello
  EOT

  dynamic "ebs_block_device" {
    for_each = var.disks
    content {
      device_name = ebs_block_device.value.name
      volume_size = ebs_block_device.value.size * 2
    }
  }
}
