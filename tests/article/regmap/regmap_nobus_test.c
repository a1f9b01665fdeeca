// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit: two regmap features of Linux 3.9 that the tree's regmap-kunit
 * does not exercise.
 *
 *  - A map without a bus: regmap_init() with a NULL bus and a config that
 *    supplies only reg_read() and reg_write().
 *  - Asynchronous I/O: regmap_raw_write_async() hands the write to the
 *    bus's async_write() and returns; regmap_async_complete() waits for
 *    the bus to call regmap_async_complete_cb() and returns its error.
 *
 * Each case asserts what a kernel without the feature would get wrong:
 * without the no-bus mode regmap_init(NULL bus) fails or never calls the
 * callbacks; without async I/O the write happens inside the call, before
 * the bus was allowed to complete it.
 */
#include <kunit/device.h>
#include <kunit/test.h>
#include <linux/completion.h>
#include <linux/regmap.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "internal.h"

#define NREGS 16

struct nobus_ctx {
	unsigned int regs[NREGS];
	unsigned int reads, writes;
};

static int nobus_reg_read(void *context, unsigned int reg, unsigned int *val)
{
	struct nobus_ctx *ctx = context;

	if (reg >= NREGS)
		return -EINVAL;
	*val = ctx->regs[reg];
	ctx->reads++;
	return 0;
}

static int nobus_reg_write(void *context, unsigned int reg, unsigned int val)
{
	struct nobus_ctx *ctx = context;

	if (reg >= NREGS)
		return -EINVAL;
	ctx->regs[reg] = val;
	ctx->writes++;
	return 0;
}

static void regmap_exit_action(void *map)
{
	regmap_exit(map);
}

/* No bus: the driver's two callbacks do all the I/O. */
static const struct regmap_config nobus_config = {
	.reg_bits = 8,
	.val_bits = 16,
	.max_register = NREGS - 1,
	.reg_read = nobus_reg_read,
	.reg_write = nobus_reg_write,
	.cache_type = REGCACHE_NONE,
};

static const struct regmap_config nobus_cached_config = {
	.reg_bits = 8,
	.val_bits = 16,
	.max_register = NREGS - 1,
	.reg_read = nobus_reg_read,
	.reg_write = nobus_reg_write,
	.cache_type = REGCACHE_RBTREE,
};

static struct regmap *nobus_map(struct kunit *test, struct nobus_ctx *ctx,
				const struct regmap_config *config)
{
	struct device *dev = kunit_device_register(test, "regmap_nobus");
	struct regmap *map;

	KUNIT_ASSERT_FALSE(test, IS_ERR(dev));
	map = regmap_init(dev, NULL, ctx, config);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR(map), "regmap_init(NULL bus): %ld",
			       PTR_ERR(map));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, regmap_exit_action, map));
	return map;
}

/* Reads and writes go straight to the driver's callbacks. */
static void nobus_read_write(struct kunit *test)
{
	struct nobus_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct regmap *map;
	unsigned int val;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	map = nobus_map(test, ctx, &nobus_config);

	KUNIT_EXPECT_EQ(test, 0, regmap_write(map, 3, 0x1234));
	KUNIT_EXPECT_EQ(test, 0x1234, ctx->regs[3]);
	KUNIT_EXPECT_EQ(test, 1, ctx->writes);

	ctx->regs[7] = 0xbeef;
	KUNIT_EXPECT_EQ(test, 0, regmap_read(map, 7, &val));
	KUNIT_EXPECT_EQ(test, 0xbeef, val);
	KUNIT_EXPECT_EQ(test, 1, ctx->reads);

	/* Past max_register: refused by regmap, not passed to the driver. */
	KUNIT_EXPECT_NE(test, 0, regmap_write(map, NREGS, 1));
	KUNIT_EXPECT_EQ(test, 1, ctx->writes);
}

/* update_bits is a read-modify-write through the two callbacks. */
static void nobus_update_bits(struct kunit *test)
{
	struct nobus_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct regmap *map;
	bool changed;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	map = nobus_map(test, ctx, &nobus_config);
	ctx->regs[2] = 0xff00;

	KUNIT_EXPECT_EQ(test, 0, regmap_update_bits_check(map, 2, 0x0ff0, 0x0550,
							  &changed));
	KUNIT_EXPECT_TRUE(test, changed);
	KUNIT_EXPECT_EQ(test, 0xf550, ctx->regs[2]);
	KUNIT_EXPECT_EQ(test, 1, ctx->reads);
	KUNIT_EXPECT_EQ(test, 1, ctx->writes);
}

/* With a cache the callbacks see only what the cache cannot answer. */
static void nobus_cached(struct kunit *test)
{
	struct nobus_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	struct regmap *map;
	unsigned int val;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	map = nobus_map(test, ctx, &nobus_cached_config);

	KUNIT_EXPECT_EQ(test, 0, regmap_write(map, 5, 0x55));
	KUNIT_EXPECT_EQ(test, 0, regmap_read(map, 5, &val));
	KUNIT_EXPECT_EQ(test, 0x55, val);
	KUNIT_EXPECT_EQ(test, 1, ctx->writes);
	KUNIT_EXPECT_EQ(test, 0, ctx->reads);

	regcache_cache_only(map, true);
	KUNIT_EXPECT_EQ(test, 0, regmap_write(map, 6, 0x66));
	KUNIT_EXPECT_EQ(test, 1, ctx->writes);
	regcache_cache_only(map, false);
	KUNIT_EXPECT_EQ(test, 0, regcache_sync(map));
	KUNIT_EXPECT_EQ(test, 0x66, ctx->regs[6]);
}

/* A bus whose async_write() completes from a work item, when let go. */
struct async_ctx {
	u8 regs[NREGS];
	unsigned int async_writes, sync_writes;
	struct work_struct work;
	struct completion go;
	struct regmap_async *pending;
	u8 reg, val[NREGS];
	size_t len;
	int ret;
};

static void async_work(struct work_struct *work)
{
	struct async_ctx *ctx = container_of(work, struct async_ctx, work);

	wait_for_completion(&ctx->go);
	if (!ctx->ret)
		memcpy(&ctx->regs[ctx->reg], ctx->val, ctx->len);
	regmap_async_complete_cb(ctx->pending, ctx->ret);
}

static int async_bus_async_write(void *context, const void *reg, size_t reg_len,
				 const void *val, size_t val_len,
				 struct regmap_async *async)
{
	struct async_ctx *ctx = context;
	const u8 *r = reg;

	/* A single register comes as one buffer: register, then value. */
	if (!val) {
		val = r + 1;
		val_len = reg_len - 1;
		reg_len = 1;
	}
	if (reg_len != 1 || !val_len || r[0] + val_len > NREGS)
		return -EINVAL;
	ctx->reg = r[0];
	memcpy(ctx->val, val, val_len);
	ctx->len = val_len;
	ctx->pending = async;
	ctx->async_writes++;
	schedule_work(&ctx->work);
	return 0;
}

static int async_bus_write(void *context, const void *data, size_t count)
{
	struct async_ctx *ctx = context;
	const u8 *d = data;

	if (count < 1 || d[0] + count - 1 > NREGS)
		return -EINVAL;
	memcpy(&ctx->regs[d[0]], d + 1, count - 1);
	ctx->sync_writes++;
	return 0;
}

static int async_bus_read(void *context, const void *reg, size_t reg_size,
			  void *val, size_t val_size)
{
	struct async_ctx *ctx = context;
	const u8 *r = reg;

	if (reg_size != 1 || r[0] + val_size > NREGS)
		return -EINVAL;
	memcpy(val, &ctx->regs[r[0]], val_size);
	return 0;
}

static struct regmap_async *async_bus_alloc(void)
{
	return kzalloc(sizeof(struct regmap_async), GFP_KERNEL);
}

static const struct regmap_bus async_bus = {
	.write = async_bus_write,
	.read = async_bus_read,
	.async_write = async_bus_async_write,
	.async_alloc = async_bus_alloc,
};

static void async_release_action(void *data)
{
	struct async_ctx *ctx = data;

	complete_all(&ctx->go);
	flush_work(&ctx->work);
}

static const struct regmap_config async_config = {
	.reg_bits = 8,
	.val_bits = 8,
	.max_register = NREGS - 1,
	.cache_type = REGCACHE_NONE,
};

static struct regmap *async_map(struct kunit *test, struct async_ctx *ctx)
{
	struct device *dev = kunit_device_register(test, "regmap_async");
	struct regmap *map;

	KUNIT_ASSERT_FALSE(test, IS_ERR(dev));
	INIT_WORK(&ctx->work, async_work);
	init_completion(&ctx->go);
	map = regmap_init(dev, &async_bus, ctx, &async_config);
	KUNIT_ASSERT_FALSE(test, IS_ERR(map));
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, regmap_exit_action, map));
	/* Runs before regmap_exit(): no work item outlives the map. */
	KUNIT_ASSERT_EQ(test, 0, kunit_add_action_or_reset(test, async_release_action, ctx));
	return map;
}

/* The write is the bus's until it completes; complete waits for it. */
static void async_raw_write_completes_later(struct kunit *test)
{
	struct async_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	u8 data[3] = { 0x11, 0x22, 0x33 };
	struct regmap *map;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	map = async_map(test, ctx);

	KUNIT_EXPECT_EQ(test, 0, regmap_raw_write_async(map, 4, data, sizeof(data)));
	KUNIT_EXPECT_EQ(test, 1, ctx->async_writes);
	KUNIT_EXPECT_EQ(test, 0, ctx->sync_writes);
	/* Not written yet: the bus has not been let go. */
	KUNIT_EXPECT_EQ(test, 0, ctx->regs[4]);

	complete_all(&ctx->go);
	KUNIT_EXPECT_EQ(test, 0, regmap_async_complete(map));
	KUNIT_EXPECT_EQ(test, 0x11, ctx->regs[4]);
	KUNIT_EXPECT_EQ(test, 0x22, ctx->regs[5]);
	KUNIT_EXPECT_EQ(test, 0x33, ctx->regs[6]);

	/* A plain write afterwards takes the synchronous path. */
	KUNIT_EXPECT_EQ(test, 0, regmap_write(map, 9, 0x99));
	KUNIT_EXPECT_EQ(test, 1, ctx->sync_writes);
	KUNIT_EXPECT_EQ(test, 0x99, ctx->regs[9]);
}

/* An error the bus reports at completion comes back from complete. */
static void async_error_is_returned_by_complete(struct kunit *test)
{
	struct async_ctx *ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	u8 data = 0x42;
	struct regmap *map;

	KUNIT_ASSERT_NOT_NULL(test, ctx);
	map = async_map(test, ctx);
	ctx->ret = -EIO;

	/* One register: the bus gets register and value in one buffer. */
	KUNIT_EXPECT_EQ(test, 0, regmap_raw_write_async(map, 1, &data, 1));
	KUNIT_EXPECT_EQ(test, 1, ctx->async_writes);
	complete_all(&ctx->go);
	KUNIT_EXPECT_EQ(test, -EIO, regmap_async_complete(map));
	KUNIT_EXPECT_EQ(test, 0, ctx->regs[1]);
	/* Reported once: the next complete has nothing outstanding. */
	KUNIT_EXPECT_EQ(test, 0, regmap_async_complete(map));
}

static struct kunit_case regmap_nobus_cases[] = {
	KUNIT_CASE(nobus_read_write),
	KUNIT_CASE(nobus_update_bits),
	KUNIT_CASE(nobus_cached),
	KUNIT_CASE(async_raw_write_completes_later),
	KUNIT_CASE(async_error_is_returned_by_complete),
	{}
};

static struct kunit_suite regmap_nobus_suite = {
	.name = "regmap_nobus_async",
	.test_cases = regmap_nobus_cases,
};

kunit_test_suite(regmap_nobus_suite);

MODULE_DESCRIPTION("KUnit: regmap without a bus, and asynchronous writes");
MODULE_LICENSE("GPL");
