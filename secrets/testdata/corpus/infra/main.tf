# Terraform for the orders stack. FAKE secrets for ctxd's tests.
provider "aws" {
  region     = "eu-west-1"
  access_key = "AKIAITKFPJVWGZLY6WWE"
  secret_key = "TDflvh8asrTVSJnSdhaYml/2jkW3X9Yuyoea+SF8"
}

resource "aws_db_instance" "orders" {
  engine   = "postgres"
  username = "orders"
  password = "Zr8#FIAmNjckl6Jo"
}

variable "example_key" {
  default = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
}
