# Nomad-style job
job "web" {
  datacenters = ["dc1"]
  type        = "service"

  group "app" {
    count = 2

    task "server" {
      driver = "docker"
      config {
        image = "nginx:1.25"
        ports = ["http"]
      }
      env {
        LOG_LEVEL = upper("info")
      }
      resources {
        cpu    = 500
        memory = 256
      }
    }
  }
}
