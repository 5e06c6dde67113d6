def deploy(target)
  puts "deploying #{target}"
