require "rake/testtask"

Rake::TestTask.new(:test) do |t|
  t.libs << "test"
  t.pattern = "test/**/*_test.rb"
end

desc "Print the version"
task :version do
  puts File.read("VERSION").strip
end

namespace :db do
  task :migrate, [:step] => :environment do |_t, args|
    step = (args[:step] || 1).to_i
    step.times { |i| puts "migrating #{i}" }
  end
end

task default: %i[test version]
