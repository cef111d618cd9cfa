package symbols

//go:generate ../gen_symbols.sh
