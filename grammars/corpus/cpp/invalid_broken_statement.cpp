class A {
public:
    int f(int x) { return x * ; }
};
