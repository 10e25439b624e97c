/*
 * hintlab's declarations of the qemu TCG plugin API, version 1 (qemu 4.2 to
 * 8.x), written from qemu's documentation (docs/devel/tcg-plugins.rst and the
 * comments of include/qemu/qemu-plugin.h). Only what cost.c uses is declared.
 * qemu resolves these symbols from its own binary when it loads the plugin.
 *
 * SPDX-License-Identifier: GPL-2.0-or-later
 * (the plugin API is qemu's, GPL-2.0-or-later; hintlab's plugin is under the
 * same licence, which is compatible with the rest of hintlab)
 */
#ifndef HINTLAB_PLUGIN_API_H
#define HINTLAB_PLUGIN_API_H

#include <inttypes.h>
#include <stdbool.h>
#include <stddef.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))

/* the API version this plugin is written against; qemu refuses a plugin outside its [min, cur] */
#define HINTLAB_PLUGIN_API_VERSION 1

typedef uint64_t qemu_plugin_id_t;

typedef struct qemu_info_t {
	const char *target_name;
	struct {
		int min;
		int cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus;
			int max_vcpus;
		} system;
	};
} qemu_info_t;

struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS,
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id, struct qemu_plugin_tb *tb);

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id, qemu_plugin_vcpu_tb_trans_cb_t cb);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb, qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn, qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb, void *userdata);

size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
/* API v1: a pointer to the instruction's bytes, valid during the translation callback */
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);

void qemu_plugin_outs(const char *string);

#endif
