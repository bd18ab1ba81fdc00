#include "../calc.h"

int main(void) { return mul(2, 2) == 4 ? 0 : 1; }
