/* Stand-in for the seed's two-node replicated register (demo/repl.c).
 * The model parser only checks that the default source <model>.c exists;
 * it never compiles this file. */
int stored;
int main(void) { return stored; }
