/** CPU this thread used since it started, in µs (the whole process's where a thread's cannot be read). */
export function threadCpuUs(): number {
  const read = (process as { threadCpuUsage?: () => NodeJS.CpuUsage }).threadCpuUsage;
  const used = read ? read.call(process) : process.cpuUsage();
  return used.user + used.system;
}
