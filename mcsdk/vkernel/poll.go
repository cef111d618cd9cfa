package vkernel

// Poll event bits (linux/eventpoll.h, asm-generic/poll.h): what an
// object's Events reports and epoll(7) and poll(2) compare.
const (
	PollIn     = 0x1
	PollPri    = 0x2
	PollOut    = 0x4
	PollErr    = 0x8
	PollHup    = 0x10
	PollRdNorm = 0x40
	PollRdBand = 0x80
	PollWrNorm = 0x100
	PollRdHup  = 0x2000
)
