/* SPDX-License-Identifier: BSD-3-Clause */
/* A lock-free DWARF CFI unwinder for x86-64 signal handlers (vt_unwind.h). */
#include "sampling/vt_unwind.h"
#include "base/vt_sys.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

/* DWARF register numbers of x86-64, and where each is in a ucontext. */
enum { R_RBP = 6, R_RSP = 7, R_RA = 16, N_REGS = 17 };
static const int greg_of[N_REGS] = {REG_RAX, REG_RDX, REG_RCX, REG_RBX, REG_RSI, REG_RDI,
				    REG_RBP, REG_RSP, REG_R8,  REG_R9,	REG_R10, REG_R11,
				    REG_R12, REG_R13, REG_R14, REG_R15, REG_RIP};

/* Pointer encodings (DW_EH_PE_*). */
enum {
	PE_ABSPTR = 0x00,
	PE_ULEB = 0x01,
	PE_UDATA2 = 0x02,
	PE_UDATA4 = 0x03,
	PE_UDATA8 = 0x04,
	PE_SLEB = 0x09,
	PE_SDATA2 = 0x0a,
	PE_SDATA4 = 0x0b,
	PE_SDATA8 = 0x0c,
	PE_PCREL = 0x10,
	PE_DATAREL = 0x30,
	PE_INDIRECT = 0x80,
	PE_OMIT = 0xff,
};

/* A register's rule in a frame. */
enum rule_kind { SAME = 0, UNDEF, AT_CFA, VAL_CFA, IN_REG, AT_EXPR, VAL_EXPR };
struct rule {
	uint8_t kind;
	int64_t off; /* AT_CFA, VAL_CFA: CFA + off; IN_REG: the register */
	const uint8_t *expr, *expr_end;
};

struct frame_rules {
	int cfa_reg; /* -1: the CFA is an expression */
	int64_t cfa_off;
	const uint8_t *cfa_expr, *cfa_expr_end;
	struct rule r[N_REGS];
	bool signal; /* the FDE is a signal frame's (augmentation S) */
};

/*
 * The per-thread cache: the rules of frames seen before, when they are the usual kind (the
 * CFA is rsp or rbp + offset; every register the frame restores, the return address
 * included, is saved at CFA + offset). Direct-mapped by address; a miss decodes the FDE.
 */
#define CACHE_SLOTS 1024
#define CACHE_SAVED 8
struct cache_slot {
	uint64_t ip; /* 0: empty */
	int32_t cfa_off;
	uint8_t cfa_reg; /* R_RSP or R_RBP */
	uint8_t n_saved;
	struct {
		uint8_t reg;
		int32_t off;
	} saved[CACHE_SAVED];
};
struct vt_unwind_cache {
	struct cache_slot slot[CACHE_SLOTS];
};

static uint64_t uleb(const uint8_t **p, const uint8_t *end)
{
	uint64_t v = 0;
	unsigned shift = 0;
	while (*p < end) {
		uint8_t b = *(*p)++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	return v;
}

static int64_t sleb(const uint8_t **p, const uint8_t *end)
{
	int64_t v = 0;
	unsigned shift = 0;
	uint8_t b = 0;
	while (*p < end) {
		b = *(*p)++;
		if (shift < 64)
			v |= (int64_t)((uint64_t)(b & 0x7f) << shift);
		shift += 7;
		if (!(b & 0x80))
			break;
	}
	if (shift < 64 && (b & 0x40))
		v |= -((int64_t)1 << shift);
	return v;
}

/* An encoded pointer at *p; datarel is the base of DW_EH_PE_datarel. false: unsupported. */
static bool read_enc(const uint8_t **p, const uint8_t *end, uint8_t enc, uintptr_t datarel,
		     uintptr_t *out)
{
	const uint8_t *at = *p;
	uint64_t v;
	if (enc == PE_OMIT)
		return false;
	switch (enc & 0x0f) {
	case PE_ABSPTR:
	case PE_UDATA8:
	case PE_SDATA8:
		if (end - at < 8)
			return false;
		memcpy(&v, at, 8);
		*p += 8;
		break;
	case PE_UDATA4:
	case PE_SDATA4: {
		if (end - at < 4)
			return false;
		uint32_t u;
		memcpy(&u, at, 4);
		v = (enc & 0x0f) == PE_SDATA4 ? (uint64_t)(int64_t)(int32_t)u : u;
		*p += 4;
		break;
	}
	case PE_UDATA2:
	case PE_SDATA2: {
		if (end - at < 2)
			return false;
		uint16_t u;
		memcpy(&u, at, 2);
		v = (enc & 0x0f) == PE_SDATA2 ? (uint64_t)(int64_t)(int16_t)u : u;
		*p += 2;
		break;
	}
	case PE_ULEB:
		v = uleb(p, end);
		break;
	case PE_SLEB:
		v = (uint64_t)sleb(p, end);
		break;
	default:
		return false;
	}
	switch (enc & 0x70) {
	case 0:
		break;
	case PE_PCREL:
		v += (uintptr_t)at;
		break;
	case PE_DATAREL:
		v += datarel;
		break;
	default:
		return false;
	}
	if (enc & PE_INDIRECT) {
		/* Only into the object's own data (personality pointers): not needed here. */
		return false;
	}
	*out = (uintptr_t)v;
	return true;
}

/* The state of one walk: registers (valid[] says which are known) and the stack's bounds. */
struct walk {
	uint64_t reg[N_REGS];
	bool valid[N_REGS];
	uintptr_t lo, hi;
};

static bool load(const struct walk *w, uintptr_t addr, uint64_t *out)
{
	if (addr < w->lo || addr > w->hi - 8 || (addr & 7))
		return false;
	*out = *(const uint64_t *)addr;
	return true;
}

/* A DWARF expression of the kinds CFI uses (PLT entries, signal frames, realigned stacks);
 * initial: pushed first (the CFA for register rules). false: unsupported or out of bounds. */
static bool eval(const struct walk *w, const uint8_t *p, const uint8_t *end, bool push_initial,
		 uint64_t initial, uint64_t *out)
{
	uint64_t st[16];
	int n = 0;
	if (push_initial)
		st[n++] = initial;
	while (p < end) {
		uint8_t op = *p++;
		if (n >= 15)
			return false;
		if (op >= 0x30 && op <= 0x4f) { /* lit0..31 */
			st[n++] = op - 0x30;
		} else if (op >= 0x70 && op <= 0x8f) { /* breg0..31 */
			int r = op - 0x70;
			int64_t off = sleb(&p, end);
			if (r >= N_REGS || !w->valid[r])
				return false;
			st[n++] = w->reg[r] + (uint64_t)off;
		} else {
			switch (op) {
			case 0x06: /* deref */
				if (n < 1 || !load(w, st[n - 1], &st[n - 1]))
					return false;
				break;
			case 0x08: /* const1u */
				if (p >= end)
					return false;
				st[n++] = *p++;
				break;
			case 0x10: /* constu */
				st[n++] = uleb(&p, end);
				break;
			case 0x11: /* consts */
				st[n++] = (uint64_t)sleb(&p, end);
				break;
			case 0x1a: /* and */
				if (n < 2)
					return false;
				st[n - 2] &= st[n - 1];
				n--;
				break;
			case 0x1c: /* minus */
				if (n < 2)
					return false;
				st[n - 2] -= st[n - 1];
				n--;
				break;
			case 0x22: /* plus */
				if (n < 2)
					return false;
				st[n - 2] += st[n - 1];
				n--;
				break;
			case 0x23: /* plus_uconst */
				if (n < 1)
					return false;
				st[n - 1] += uleb(&p, end);
				break;
			case 0x24: /* shl */
				if (n < 2 || st[n - 1] >= 64)
					return false;
				st[n - 2] <<= st[n - 1];
				n--;
				break;
			case 0x2a: /* ge */
				if (n < 2)
					return false;
				st[n - 2] = (int64_t)st[n - 2] >= (int64_t)st[n - 1];
				n--;
				break;
			case 0x96: /* nop */
				break;
			default:
				return false;
			}
		}
	}
	if (n < 1)
		return false;
	*out = st[n - 1];
	return true;
}

/* A CIE's fields that its FDEs need. */
struct cie {
	uint64_t code_align;
	int64_t data_align;
	unsigned ra;
	uint8_t fde_enc;
	bool has_z, signal;
	const uint8_t *insns, *end;
};

static bool parse_cie(const uint8_t *p, struct cie *c)
{
	uint32_t len;
	memcpy(&len, p, 4);
	if (len == 0 || len == 0xffffffffu)
		return false;
	const uint8_t *end = p + 4 + len;
	p += 8; /* length, CIE id */
	uint8_t version = *p++;
	const char *aug = (const char *)p;
	p += strnlen(aug, (size_t)(end - p)) + 1;
	if (aug[0] && aug[0] != 'z')
		return false; /* "eh" and other old forms */
	c->code_align = uleb(&p, end);
	c->data_align = sleb(&p, end);
	c->ra = version == 1 ? *p++ : (unsigned)uleb(&p, end);
	c->fde_enc = PE_ABSPTR;
	c->has_z = aug[0] == 'z';
	c->signal = false;
	if (c->has_z) {
		uint64_t n = uleb(&p, end);
		const uint8_t *data = p, *data_end = p + n;
		for (const char *a = aug + 1; *a && data <= data_end; a++) {
			switch (*a) {
			case 'R':
				c->fde_enc = *data++;
				break;
			case 'L':
				data++;
				break;
			case 'P': {
				uint8_t enc = *data++;
				uintptr_t ignored;
				/* The personality pointer: skipped (indirect is fine to skip). */
				if (!read_enc(&data, data_end, enc & 0x7f, 0, &ignored))
					return false;
				break;
			}
			case 'S':
				c->signal = true;
				break;
			default:
				return false;
			}
		}
		p = data_end;
	}
	c->insns = p;
	c->end = end;
	return c->ra < N_REGS;
}

/* Runs CFA instructions until the location passes pc; false on what it does not know. */
static bool run_cfa(const uint8_t *p, const uint8_t *end, const struct cie *c, uintptr_t loc,
		    uintptr_t pc, struct frame_rules *fr, const struct frame_rules *initial)
{
	struct frame_rules saved[4];
	int n_saved = 0;
	while (p < end && loc <= pc) {
		uint8_t op = *p++;
		uint8_t hi = op & 0xc0, lo = op & 0x3f;
		if (hi == 0x40) { /* advance_loc */
			loc += lo * c->code_align;
			continue;
		}
		if (hi == 0x80) { /* offset */
			int64_t off = (int64_t)uleb(&p, end) * c->data_align;
			if (lo < N_REGS)
				fr->r[lo] = (struct rule){AT_CFA, off, NULL, NULL};
			continue;
		}
		if (hi == 0xc0) { /* restore */
			if (lo < N_REGS && initial)
				fr->r[lo] = initial->r[lo];
			continue;
		}
		switch (op) {
		case 0x00: /* nop */
			break;
		case 0x01: { /* set_loc */
			uintptr_t a;
			if (!read_enc(&p, end, c->fde_enc, 0, &a))
				return false;
			loc = a;
			break;
		}
		case 0x02:
			loc += *p++ * c->code_align;
			break;
		case 0x03: {
			uint16_t d;
			memcpy(&d, p, 2);
			p += 2;
			loc += d * c->code_align;
			break;
		}
		case 0x04: {
			uint32_t d;
			memcpy(&d, p, 4);
			p += 4;
			loc += d * c->code_align;
			break;
		}
		case 0x05:   /* offset_extended */
		case 0x11: { /* offset_extended_sf */
			uint64_t r = uleb(&p, end);
			int64_t off = op == 0x05 ? (int64_t)uleb(&p, end) * c->data_align
						 : sleb(&p, end) * c->data_align;
			if (r < N_REGS)
				fr->r[r] = (struct rule){AT_CFA, off, NULL, NULL};
			break;
		}
		case 0x14:   /* val_offset */
		case 0x15: { /* val_offset_sf */
			uint64_t r = uleb(&p, end);
			int64_t off = op == 0x14 ? (int64_t)uleb(&p, end) * c->data_align
						 : sleb(&p, end) * c->data_align;
			if (r < N_REGS)
				fr->r[r] = (struct rule){VAL_CFA, off, NULL, NULL};
			break;
		}
		case 0x06: { /* restore_extended */
			uint64_t r = uleb(&p, end);
			if (r < N_REGS && initial)
				fr->r[r] = initial->r[r];
			break;
		}
		case 0x07:   /* undefined */
		case 0x08: { /* same_value */
			uint64_t r = uleb(&p, end);
			if (r < N_REGS)
				fr->r[r] = (struct rule){op == 0x07 ? UNDEF : SAME, 0, NULL, NULL};
			break;
		}
		case 0x09: { /* register */
			uint64_t r = uleb(&p, end), r2 = uleb(&p, end);
			if (r < N_REGS)
				fr->r[r] = (struct rule){IN_REG, (int64_t)r2, NULL, NULL};
			break;
		}
		case 0x0a: /* remember_state */
			if (n_saved == 4)
				return false;
			saved[n_saved++] = *fr;
			break;
		case 0x0b: /* restore_state */
			if (!n_saved)
				return false;
			*fr = saved[--n_saved];
			break;
		case 0x0c: /* def_cfa */
			fr->cfa_reg = (int)uleb(&p, end);
			fr->cfa_off = (int64_t)uleb(&p, end);
			break;
		case 0x12: /* def_cfa_sf */
			fr->cfa_reg = (int)uleb(&p, end);
			fr->cfa_off = sleb(&p, end) * c->data_align;
			break;
		case 0x0d: /* def_cfa_register */
			fr->cfa_reg = (int)uleb(&p, end);
			break;
		case 0x0e: /* def_cfa_offset */
			fr->cfa_off = (int64_t)uleb(&p, end);
			break;
		case 0x13: /* def_cfa_offset_sf */
			fr->cfa_off = sleb(&p, end) * c->data_align;
			break;
		case 0x0f: { /* def_cfa_expression */
			uint64_t n = uleb(&p, end);
			fr->cfa_reg = -1;
			fr->cfa_expr = p;
			fr->cfa_expr_end = p + n;
			p += n;
			break;
		}
		case 0x10:   /* expression */
		case 0x16: { /* val_expression */
			uint64_t r = uleb(&p, end), n = uleb(&p, end);
			if (r < N_REGS)
				fr->r[r] =
				    (struct rule){op == 0x10 ? AT_EXPR : VAL_EXPR, 0, p, p + n};
			p += n;
			break;
		}
		case 0x2e: /* GNU_args_size */
			uleb(&p, end);
			break;
		case 0x2f: { /* GNU_negative_offset_extended */
			uint64_t r = uleb(&p, end);
			int64_t off = -(int64_t)uleb(&p, end) * c->data_align;
			if (r < N_REGS)
				fr->r[r] = (struct rule){AT_CFA, off, NULL, NULL};
			break;
		}
		default:
			return false;
		}
	}
	return true;
}

/* The FDE covering pc in the object described by its .eh_frame_hdr; NULL when none. */
static const uint8_t *find_fde(const uint8_t *hdr, uintptr_t pc)
{
	if (!hdr || hdr[0] != 1)
		return NULL;
	uint8_t ptr_enc = hdr[1], count_enc = hdr[2], table_enc = hdr[3];
	const uint8_t *p = hdr + 4, *end = hdr + 4 + 16;
	uintptr_t eh_frame, count;
	if (!read_enc(&p, end, ptr_enc, (uintptr_t)hdr, &eh_frame) ||
	    !read_enc(&p, end, count_enc, (uintptr_t)hdr, &count) || !count)
		return NULL;
	/* The binary search table: pairs of datarel sdata4 (what every linker writes). */
	if (table_enc != (PE_DATAREL | PE_SDATA4))
		return NULL;
	const int32_t *t = (const int32_t *)(const void *)p;
	intptr_t rel = (intptr_t)(pc - (uintptr_t)hdr);
	size_t lo = 0, hi = count;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if ((intptr_t)t[2 * mid] <= rel)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	return hdr + t[2 * (lo - 1) + 1];
}

/* The rules in force at pc: from its FDE and CIE. */
static bool rules_at(uintptr_t pc, struct frame_rules *fr)
{
	struct dl_find_object obj;
	if (_dl_find_object((void *)pc, &obj) != 0)
		return false;
	const uint8_t *fde = find_fde(obj.dlfo_eh_frame, pc);
	if (!fde)
		return false;
	uint32_t len, cie_off;
	memcpy(&len, fde, 4);
	if (len == 0 || len == 0xffffffffu)
		return false;
	const uint8_t *end = fde + 4 + len, *p = fde + 4;
	memcpy(&cie_off, p, 4);
	struct cie c;
	if (!parse_cie(p - cie_off, &c))
		return false;
	p += 4;
	uintptr_t start, range;
	if (!read_enc(&p, end, c.fde_enc, 0, &start) ||
	    !read_enc(&p, end, c.fde_enc & 0x0f, 0, &range))
		return false;
	if (pc < start || pc >= start + range)
		return false;
	if (c.has_z) {
		uint64_t n = uleb(&p, end);
		p += n;
	}
	memset(fr, 0, sizeof(*fr));
	fr->signal = c.signal;
	if (!run_cfa(c.insns, c.end, &c, start, (uintptr_t)-1, fr, NULL))
		return false;
	struct frame_rules initial = *fr;
	if (!run_cfa(p, end, &c, start, pc, fr, &initial))
		return false;
	/* The return address's column: x86-64's 16 in practice. */
	if (c.ra != R_RA)
		fr->r[R_RA] = fr->r[c.ra];
	return true;
}

static bool apply_cached(struct walk *w, const struct cache_slot *s)
{
	uint64_t cfa = w->reg[s->cfa_reg] + (uint64_t)(int64_t)s->cfa_off, v[CACHE_SAVED];
	for (unsigned i = 0; i < s->n_saved; i++)
		if (!load(w, cfa + (uint64_t)(int64_t)s->saved[i].off, &v[i]))
			return false;
	for (unsigned i = 0; i < s->n_saved; i++) {
		w->reg[s->saved[i].reg] = v[i];
		w->valid[s->saved[i].reg] = true;
	}
	w->reg[R_RSP] = cfa;
	return true;
}

/* One step: the caller's registers from the frame's rules; *signal: the frame was a signal
 * frame (the next address is an interrupted one). false: the walk ends. */
static bool step(struct walk *w, uintptr_t pc, struct vt_unwind_cache *cache, bool *signal)
{
	struct cache_slot *s = cache ? &cache->slot[(pc >> 2) & (CACHE_SLOTS - 1)] : NULL;
	*signal = false;
	if (s && s->ip == pc)
		return apply_cached(w, s);
	struct frame_rules fr;
	if (!rules_at(pc, &fr))
		return false;
	uint64_t cfa;
	if (fr.cfa_reg >= 0) {
		if (fr.cfa_reg >= N_REGS || !w->valid[fr.cfa_reg])
			return false;
		cfa = w->reg[fr.cfa_reg] + (uint64_t)fr.cfa_off;
	} else if (!eval(w, fr.cfa_expr, fr.cfa_expr_end, false, 0, &cfa)) {
		return false;
	}
	if (fr.r[R_RA].kind == UNDEF)
		return false; /* the outermost frame (_start, clone) */
	uint64_t next[N_REGS];
	bool valid[N_REGS];
	for (int r = 0; r < N_REGS; r++) {
		const struct rule *ru = &fr.r[r];
		uint64_t v = w->reg[r], a;
		bool ok = w->valid[r];
		switch (ru->kind) {
		case SAME:
			break;
		case UNDEF:
			ok = false;
			break;
		case AT_CFA:
			ok = load(w, cfa + (uint64_t)ru->off, &v);
			break;
		case VAL_CFA:
			v = cfa + (uint64_t)ru->off;
			ok = true;
			break;
		case IN_REG:
			ok = ru->off < N_REGS && w->valid[ru->off];
			v = ok ? w->reg[ru->off] : 0;
			break;
		case AT_EXPR:
			ok = eval(w, ru->expr, ru->expr_end, true, cfa, &a) && load(w, a, &v);
			break;
		case VAL_EXPR:
			ok = eval(w, ru->expr, ru->expr_end, true, cfa, &v);
			break;
		}
		next[r] = v;
		valid[r] = ok;
	}
	if (!valid[R_RA])
		return false;
	/* The usual frame goes into the cache. */
	if (s && !fr.signal && (fr.cfa_reg == R_RSP || fr.cfa_reg == R_RBP) &&
	    fr.cfa_off == (int32_t)fr.cfa_off && fr.r[R_RA].kind == AT_CFA) {
		struct cache_slot c = {pc, (int32_t)fr.cfa_off, (uint8_t)fr.cfa_reg, 0, {{0, 0}}};
		bool usual = true;
		for (int r = 0; r < N_REGS && usual; r++) {
			if (r == R_RSP || fr.r[r].kind == SAME)
				continue;
			usual = fr.r[r].kind == AT_CFA && c.n_saved < CACHE_SAVED &&
				fr.r[r].off == (int32_t)fr.r[r].off;
			if (usual) {
				c.saved[c.n_saved].reg = (uint8_t)r;
				c.saved[c.n_saved++].off = (int32_t)fr.r[r].off;
			}
		}
		if (usual)
			*s = c;
	}
	memcpy(w->reg, next, sizeof(next));
	memcpy(w->valid, valid, sizeof(valid));
	w->reg[R_RSP] = cfa; /* the caller's stack pointer is the CFA */
	w->valid[R_RSP] = true;
	*signal = fr.signal;
	return true;
}

unsigned vt_unwind_cfi(const ucontext_t *uc, const struct vt_unwind_thread *u, uint64_t *f,
		       unsigned max, bool *cut)
{
	struct walk w;
	for (int r = 0; r < N_REGS; r++) {
		w.reg[r] = (uint64_t)uc->uc_mcontext.gregs[greg_of[r]];
		w.valid[r] = true;
	}
	w.lo = u->stack_lo;
	w.hi = u->stack_hi;
	unsigned n = 0;
	uint64_t pc = w.reg[R_RA];
	if (!pc)
		return 0;
	f[n++] = pc;
	/* A frame's rules are looked up at its call instruction (return address - 1), so that
	 * a call that ends a function (noreturn) finds its own function. */
	bool exact = true;
	while (w.lo && w.reg[R_RSP] >= w.lo && w.reg[R_RSP] < w.hi) {
		bool signal;
		if (!step(&w, (uintptr_t)pc, u->cache, &signal) || w.reg[R_RA] < 4096)
			break;
		/* A signal trampoline (__restore_rt) is named by its own address: its unwind
		 * entry starts a byte early for the sake of the lookup, its symbol does not. */
		if (signal && !exact)
			f[n - 1]++;
		if (n == max) {
			*cut = true;
			break;
		}
		exact = signal;
		pc = signal ? w.reg[R_RA] : w.reg[R_RA] - 1;
		f[n++] = pc;
	}
	return n;
}

void vt_unwind_thread_init(struct vt_unwind_thread *u)
{
	pthread_attr_t a;
	void *lo;
	size_t size;
	if (pthread_getattr_np(pthread_self(), &a) == 0) {
		if (pthread_attr_getstack(&a, &lo, &size) == 0) {
			u->stack_lo = (uintptr_t)lo;
			u->stack_hi = (uintptr_t)lo + size;
		}
		pthread_attr_destroy(&a);
	}
	void *c = vt_sys_mmap(NULL, sizeof(struct vt_unwind_cache), PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	u->cache = c == MAP_FAILED ? NULL : c;
}

void vt_unwind_thread_fini(struct vt_unwind_thread *u)
{
	struct vt_unwind_cache *c = u->cache;
	u->cache = NULL;
	if (c)
		vt_sys_munmap(c, sizeof(*c));
}
