class Foo
  def bar(x)
    if x > 1
      x
  end
end
