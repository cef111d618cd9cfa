#!/bin/sh
# The ladder's AMQP client (rabbitmq.model): Debian's amqp-tools declare
# the queue weft on the broker at port $1, publish "$3" to it and consume
# one message back; then one connection on port $2 is answered with the
# consumed body ("consumed: BODY"), which the model's client reads and its
# invariant compares with the published body. A failed step exits non-zero
# (weft's no_node_crash). The node starts once the broker's port accepts
# connections; the first step is retried for a few virtual seconds should
# the broker not serve AMQP yet.
set -e
url="amqp://guest:guest@127.0.0.1:$1"
tries=0
until amqp-declare-queue -u "$url" -q weft >/dev/null; do
	tries=$((tries + 1))
	[ "$tries" -lt 10 ] || exit 1
	sleep 1
done
amqp-publish -u "$url" -r weft -b "$3"
got=$(amqp-consume -u "$url" -q weft -c 1 cat)
exec perl -MIO::Socket::INET -e '
	my $l = IO::Socket::INET->new(LocalAddr => "127.0.0.1", LocalPort => $ARGV[0], Listen => 1, ReuseAddr => 1) or die "listen: $!\n";
	my $c = $l->accept or die "accept: $!\n";
	print $c "consumed: $ARGV[1]\n";
	close $c;' "$2" "$got"
