/* SPDX-License-Identifier: BSD-3-Clause */
/* Two metric sources: VampirTrace counter plugins and Score-P metric plugins (vt_metric.h). */
#include "metrics/vt_metric_plugins.h"
#include "base/vt_config.h"
#include "metrics/vt_plugin_load.h"

/* The loader (vt_plugin_load.c) describes a plugin; these tables say how it is used. */
static struct vt_plugin *plugin_of(struct vt_metric_source *s)
{
	return (struct vt_plugin *)s; /* src is the first member */
}

static bool vt_thread_is_own(struct vt_metric_source *s)
{
	struct vt_plugin *p = plugin_of(s);
	return p->vt.is_thread_registered && p->vt.is_thread_registered();
}

static int32_t vt_add(struct vt_metric_source *s, const struct vt_metric *m)
{
	return plugin_of(s)->vt.add_counter(m->name);
}

static int32_t vt_enable(struct vt_metric_source *s, int32_t id)
{
	struct vt_plugin *p = plugin_of(s);
	return p->vt.enable_counter ? p->vt.enable_counter(id) : 0;
}

static void vt_disable(struct vt_metric_source *s, int32_t id)
{
	struct vt_plugin *p = plugin_of(s);
	if (p->vt.disable_counter)
		p->vt.disable_counter(id);
}

/* Both interfaces' value pairs are two uint64_t: the layout of struct vt_metric_tv. */
_Static_assert(sizeof(vt_plugin_cntr_timevalue) == sizeof(struct vt_metric_tv), "one layout");
_Static_assert(sizeof(SCOREP_MetricTimeValuePair) == sizeof(struct vt_metric_tv), "one layout");
_Static_assert((int)VT_PLUGIN_CNTR_CALLBACK_BUFFER_FULL == (int)VT_METRIC_CALLBACK_BUFFER_FULL &&
		   (int)VT_PLUGIN_CNTR_CALLBACK_TRACE_OFF_PERMANENT ==
		       (int)VT_METRIC_CALLBACK_TRACE_OFF_PERMANENT,
	       "the callback's answers are the plugin interface's");

static uint64_t vt_get_all(struct vt_metric_source *s, int32_t id, struct vt_metric_tv **list)
{
	return plugin_of(s)->vt.get_all_values(id, (vt_plugin_cntr_timevalue **)list);
}

/* The service's callback; one for every counter (obj tells them apart). */
static vt_metric_callback service_callback;

static int32_t vt_callback(void *obj, vt_plugin_cntr_timevalue tv)
{
	return service_callback(obj, (struct vt_metric_tv){tv.timestamp, tv.value});
}

static void vt_set_callback(struct vt_metric_source *s, void *obj, int32_t id,
			    vt_metric_callback cb)
{
	service_callback = cb;
	plugin_of(s)->vt.set_callback_function(obj, id, vt_callback);
}

static void vt_finalize(struct vt_metric_source *s)
{
	struct vt_plugin *p = plugin_of(s);
	if (p->vt.finalize)
		p->vt.finalize();
	p->initialised = false;
}

static const struct vt_metric_ops vt_ops = {
    .thread_is_own = vt_thread_is_own,
    .add = vt_add,
    .enable = vt_enable,
    .disable = vt_disable,
    .get_all = vt_get_all,
    .set_callback = vt_set_callback,
    .finalize = vt_finalize,
};

static int32_t sp_add(struct vt_metric_source *s, const struct vt_metric *m)
{
	return plugin_of(s)->sp.add_counter(m->name);
}

static uint64_t sp_get_all(struct vt_metric_source *s, int32_t id, struct vt_metric_tv **list)
{
	return plugin_of(s)->sp.get_all_values(id, (SCOREP_MetricTimeValuePair **)list);
}

static void sp_synchronize(struct vt_metric_source *s, bool responsible, enum vt_metric_phase ph)
{
	static const SCOREP_MetricSynchronizationMode mode[] = {
	    [VT_METRIC_BEGIN] = SCOREP_METRIC_SYNCHRONIZATION_MODE_BEGIN,
	    [VT_METRIC_BEGIN_MPP] = SCOREP_METRIC_SYNCHRONIZATION_MODE_BEGIN_MPP,
	    [VT_METRIC_END] = SCOREP_METRIC_SYNCHRONIZATION_MODE_END,
	};
	struct vt_plugin *p = plugin_of(s);
	if (p->sp.synchronize)
		p->sp.synchronize(responsible, mode[ph]);
}

static void sp_finalize(struct vt_metric_source *s)
{
	struct vt_plugin *p = plugin_of(s);
	if (p->sp.finalize)
		p->sp.finalize();
	p->initialised = false;
}

static const struct vt_metric_ops sp_ops = {
    .add = sp_add,
    .get_all = sp_get_all,
    .synchronize = sp_synchronize,
    .finalize = sp_finalize,
};

struct vt_metric_source *vt_metric_plugins_load(uint64_t (*wtime)(void))
{
	if (!vt_cfg.plugin_metrics && !vt_cfg.scorep_plugins)
		return NULL;
	struct vt_plugin *plugins = vt_plugin_load_all(vt_cfg.plugin_metrics, vt_cfg.scorep_plugins,
						       vt_cfg.plugin_path, wtime);
	for (struct vt_plugin *p = plugins; p; p = p->next) {
		struct vt_metric_source *s = &p->src;
		if (p->abi == VT_PLUGIN_ABI_VT) {
			s->ops = &vt_ops;
			s->get = p->vt.get_current_value;
		} else {
			s->ops = &sp_ops;
			s->get = p->sp.get_current_value;
			s->get_optional = p->sp.get_optional_value;
		}
		s->next = p->next ? &p->next->src : NULL;
	}
	return plugins ? &plugins->src : NULL;
}
