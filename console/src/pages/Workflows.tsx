import { Link } from 'react-router-dom';
import { call } from '../api';
import { fmtSchedule } from '../format';
import { useGroups } from '../groups';
import type { Workflow } from '../types';
import { ErrorBox, Field, GroupOptions, StatusBadge, useLoad, useUrlFilters } from '../ui';

/** The workflows the caller can see (ListWorkflows is not paged), filtered by group as the jobs are. */
export default function Workflows() {
  const { groups, name } = useGroups();
  const { get, set: setF, query } = useUrlFilters();
  const { data, error, reload } = useLoad(
    () => call<{ workflows?: Workflow[] }>('JobAdmin/ListWorkflows', { groupId: get('groupId') || undefined }),
    [query],
  );
  const workflows = data?.workflows ?? [];
  return (
    <section aria-labelledby="workflows-h">
      <div className="page-head">
        <h1 id="workflows-h">Workflows</h1>
        <button type="button" className="secondary" onClick={reload}>
          Refresh
        </button>
      </div>
      <div className="filters" role="search" aria-label="Workflow filters">
        <Field label="Group">
          <select value={get('groupId')} onChange={(e) => setF('groupId', e.target.value)}>
            <GroupOptions groups={groups} label={(g) => name(g.id)} empty="All groups" />
          </select>
        </Field>
      </div>
      <ErrorBox error={error} />
      <div className="table-wrap">
        <table className="stack">
          <thead>
            <tr>
              <th>ID</th>
              <th>Name</th>
              <th>Group</th>
              <th>Schedule</th>
              <th>State</th>
              <th>Nodes</th>
            </tr>
          </thead>
          <tbody>
            {workflows.map((w) => (
              <tr key={w.id} data-workflow-id={w.id}>
                <td data-label="ID">{w.id}</td>
                <td data-label="Name">
                  <Link to={`/workflows/${w.id}`}>{w.name}</Link>
                  {w.description && (
                    <>
                      <br />
                      <small>{w.description}</small>
                    </>
                  )}
                </td>
                <td data-label="Group">{name(w.groupId)}</td>
                <td data-label="Schedule">{fmtSchedule(w.schedule)}</td>
                <td data-label="State">
                  <StatusBadge status={w.state} />
                </td>
                <td data-label="Nodes">{w.nodes?.length ?? 0}</td>
              </tr>
            ))}
            {data && workflows.length === 0 && (
              <tr>
                <td colSpan={6}>No workflows.</td>
              </tr>
            )}
          </tbody>
        </table>
      </div>
    </section>
  );
}
