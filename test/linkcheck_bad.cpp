// Deliberately forbidden code: operator new and a virtual destructor (which pulls operator
// delete). The symbol check must FAIL on this library; meson runs it with should_fail, so a
// checker that stopped seeing such symbols would turn the suite red.
struct Base {
  virtual ~Base() = default;
  virtual int value() const { return 1; }
};
struct Derived : Base {
  int value() const override { return 2; }
};
int make_and_call() {
  Base* b = new Derived;
  const int v = b->value();
  delete b;
  return v;
}
