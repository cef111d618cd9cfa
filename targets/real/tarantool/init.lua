-- A tarantool instance with one memtx space, kv, its data in the run
-- directory, and tarantool's text console on the port given as the first
-- argument (the admin protocol: Lua in, YAML out).
local port = arg[1]
box.cfg{work_dir = '.', memtx_memory = 32 * 1024 * 1024, log_level = 5}
box.schema.space.create('kv', {if_not_exists = true})
box.space.kv:create_index('pk', {if_not_exists = true})
require('console').listen('127.0.0.1:' .. port)
print('console on ' .. port)
