pub trait Shape {
    fn area(&self) -> f64;
    fn name(&self) -> &'static str {
        "shape"
    }
}

pub struct Circle {
    pub r: f64,
}

impl Shape for Circle {
    fn area(&self) -> f64 {
        std::f64::consts::PI * self.r * self.r
    }
}

pub fn largest<'a, T: Shape + ?Sized>(shapes: &'a [Box<T>]) -> Option<&'a T> {
    shapes
        .iter()
        .map(|s| s.as_ref())
        .max_by(|a, b| a.area().partial_cmp(&b.area()).unwrap())
}

macro_rules! square {
    ($x:expr) => {
        $x * $x
    };
}

pub fn total(xs: &[i64]) -> i64 {
    xs.iter().copied().filter(|&x| x > 0).map(|x| square!(x)).sum()
}
