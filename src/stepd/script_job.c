#include <stdlib.h>
#include "common/gres_req.h"
#include "common/jobfmt.h"
#include "stepd/script_job.h"
#include "common/common.h"

struct script_job *script_job_of(const struct launch_req *r)
{
	int batch = r->step_id == STEP_BATCH;
	struct script_job j = {
	    .job_id = r->job_id,
	    .uid = r->uid,
	    .gid = r->gid,
	    .ntasks = r->job_num_tasks,
	    .nnodes = r->job_cpus_per_node.n,
	    .restart_cnt = r->restart_cnt,
	    .user = r->user,
	    .nodes = r->job_nodes,
	    .partition = r->partition,
	    .account = r->account,
	    .comment = r->comment,
	    .constraints = r->constraints,
	    .reservation = r->reservation,
	    .work_dir = r->work_dir,
	    .std_out = batch ? r->std_out : NULL,
	    .std_err = batch ? r->std_err : NULL,
	    .std_in = batch ? r->std_in : NULL,
	};
	struct script_job *c;

	j.cpus_per_node = jobfmt_counts(r->job_cpus_per_node.v, r->job_cpus_per_node.n);
	j.gpus = gres_alloc_indexes(r->gres, "gpu");
	c = script_job_dup(&j);
	free(j.cpus_per_node);
	free(j.gpus);
	return c;
}
