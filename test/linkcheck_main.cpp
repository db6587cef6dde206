// Entry point of the link-check image: the whole libtilefw.a is linked around it with
// --no-gc-sections, and scripts/check_symbols.py inspects the result.
int main() { return 0; }
