class Config
  DEFAULTS = { retries: 3, timeout: 5.0 }.freeze

  def self.build(&block)
    new.tap { |c| c.instance_eval(&block) if block }
  end

  def method_missing(name, *args)
    return super unless name.end_with?("=") || args.size == 1

    (@values ||= DEFAULTS.dup)[name.to_s.delete_suffix("=").to_sym] = args.first
  end

  def respond_to_missing?(_name, _include_private = false) = true
end

config = Config.build do
  retries 5
  timeout 1.5
end

case config
when Config then puts "ok"
else puts "??"
end

numbers = [1, 2, 3].each_with_object([]) { |n, acc| acc << n**2 unless n.odd? }
puts <<~TEXT
  squares: #{numbers.inspect}
TEXT
