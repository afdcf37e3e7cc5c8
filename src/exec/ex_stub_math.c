#include "exec/ex_func_int.h"
void ex__reg_math(void) {}
