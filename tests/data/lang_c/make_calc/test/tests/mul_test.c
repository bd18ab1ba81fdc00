#include "../calc.h"

int main(void) { return mul(2, 2) == 4 && mul(3, 4) == 12 ? 0 : 1; }
