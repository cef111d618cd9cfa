# aio: an asyncio program (epoll selector, socketpair self-pipe, pipes, a
# unix stream server by path, timers) for fds_linux_test.go. Run it in a
# writable directory: it binds aio.sock there.
import asyncio
import os
import socket


async def main():
    r, w = socket.socketpair()
    r.setblocking(False)
    loop = asyncio.get_running_loop()
    fut = loop.create_future()

    def readable():
        loop.remove_reader(r)
        fut.set_result(r.recv(100))

    loop.add_reader(r, readable)
    loop.call_later(0.05, w.send, b"hello via epoll")
    print("socketpair", await fut)
    pr, pw = os.pipe()
    os.write(pw, b"pipe!")
    print("pipe", os.read(pr, 10))
    await asyncio.sleep(0.1)

    async def serve(rd, wr):
        line = await rd.readline()
        wr.write(b"echo " + line)
        await wr.drain()
        wr.close()

    srv = await asyncio.start_unix_server(serve, path="aio.sock")
    for i in range(3):
        rd, wr = await asyncio.open_unix_connection("aio.sock")
        wr.write(b"request %d\n" % i)
        print("unix", await rd.readline())
        wr.close()
    srv.close()
    await srv.wait_closed()
    os.unlink("aio.sock")


asyncio.run(main())
print("done")
