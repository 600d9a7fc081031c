/* Option reading with a registry of valid names, -help lines and range checks (options.h). */
#include <tribodyn/options.h>
#include <ctype.h>

static char    **registry       = NULL; /* full names without the leading '-' */
static PetscInt  registry_count = 0, registry_cap = 0;
static PetscBool help_requested = PETSC_FALSE;
static MPI_Comm  options_comm   = MPI_COMM_NULL;

static PetscErrorCode FullName(const char prefix[], const char name[], char full[], size_t len)
{
  PetscFunctionBegin;
  if (prefix && prefix[0]) PetscCall(PetscSNPrintf(full, len, "-%s_%s", prefix, name));
  else PetscCall(PetscSNPrintf(full, len, "-%s", name));
  PetscFunctionReturn(0);
}

static PetscErrorCode Record(const char full[])
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < registry_count; i++) {
    PetscBool same;
    PetscCall(PetscStrcmp(registry[i], full + 1, &same));
    if (same) PetscFunctionReturn(0);
  }
  if (registry_count == registry_cap) {
    char   **grown;
    PetscInt cap = registry_cap ? 2 * registry_cap : 256;
    PetscCall(PetscCalloc1(cap, &grown));
    for (PetscInt i = 0; i < registry_count; i++) grown[i] = registry[i];
    PetscCall(PetscFree(registry));
    registry     = grown;
    registry_cap = cap;
  }
  PetscCall(PetscStrallocpy(full + 1, &registry[registry_count++]));
  PetscFunctionReturn(0);
}

static PetscErrorCode Help(const char full[], const char deflt[], const char help[], const char unit[])
{
  PetscFunctionBegin;
  if (help_requested) {
    if (unit && unit[0]) PetscCall((*PetscHelpPrintf)(options_comm, "  %s <%s>: %s [%s]\n", full, deflt, help, unit));
    else PetscCall((*PetscHelpPrintf)(options_comm, "  %s <%s>: %s\n", full, deflt, help));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsInitialize(MPI_Comm comm)
{
  PetscFunctionBegin;
  options_comm = comm;
  PetscCall(PetscOptionsHasHelp(NULL, &help_requested));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsFinalize(void)
{
  PetscFunctionBegin;
  for (PetscInt i = 0; i < registry_count; i++) PetscCall(PetscFree(registry[i]));
  PetscCall(PetscFree(registry));
  registry_count = registry_cap = 0;
  PetscFunctionReturn(0);
}

PetscBool TdOptionsHelpRequested(void) { return help_requested; }

PetscErrorCode TdOptionsRegisterName(const char prefix[], const char name[])
{
  char full[256];
  PetscFunctionBegin;
  PetscCall(FullName(prefix, name, full, sizeof full));
  PetscCall(Record(full));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsReal(const char prefix[], const char name[], const char help[], const char unit[], PetscReal def, PetscReal *value, PetscBool *set)
{
  char      full[256], d[64];
  PetscBool flg;
  PetscFunctionBegin;
  PetscCall(FullName(prefix, name, full, sizeof full));
  PetscCall(Record(full));
  PetscCall(PetscSNPrintf(d, sizeof d, "%g", (double)def));
  PetscCall(Help(full, d, help, unit));
  *value = def;
  PetscCall(PetscOptionsGetReal(NULL, NULL, full, value, &flg));
  if (flg && PetscIsInfOrNanReal(*value)) SETERRQ(options_comm, PETSC_ERR_USER_INPUT, "Option %s: the value is not a finite number", full);
  if (set) *set = flg;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsRealPositive(const char prefix[], const char name[], const char help[], const char unit[], PetscReal def, PetscBool strictly, PetscReal *value, PetscBool *set)
{
  char full[256];
  PetscFunctionBegin;
  PetscCall(TdOptionsReal(prefix, name, help, unit, def, value, set));
  PetscCall(FullName(prefix, name, full, sizeof full));
  if (strictly && !(*value > 0)) SETERRQ(options_comm, PETSC_ERR_USER_INPUT, "Option %s = %g: must be positive (%s)", full, (double)*value, help);
  if (!strictly && !(*value >= 0)) SETERRQ(options_comm, PETSC_ERR_USER_INPUT, "Option %s = %g: must not be negative (%s)", full, (double)*value, help);
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsInt(const char prefix[], const char name[], const char help[], PetscInt def, PetscInt *value, PetscBool *set)
{
  char      full[256], d[64];
  PetscBool flg;
  PetscFunctionBegin;
  PetscCall(FullName(prefix, name, full, sizeof full));
  PetscCall(Record(full));
  PetscCall(PetscSNPrintf(d, sizeof d, "%" PetscInt_FMT, def));
  PetscCall(Help(full, d, help, NULL));
  *value = def;
  PetscCall(PetscOptionsGetInt(NULL, NULL, full, value, &flg));
  if (set) *set = flg;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsBool(const char prefix[], const char name[], const char help[], PetscBool def, PetscBool *value, PetscBool *set)
{
  char      full[256];
  PetscBool flg;
  PetscFunctionBegin;
  PetscCall(FullName(prefix, name, full, sizeof full));
  PetscCall(Record(full));
  PetscCall(Help(full, def ? "true" : "false", help, NULL));
  *value = def;
  PetscCall(PetscOptionsGetBool(NULL, NULL, full, value, &flg));
  if (set) *set = flg;
  PetscFunctionReturn(0);
}

/* The default of an array option for -help: comma-separated reals (r) or integers (i), or
   "none" when the option has no default. */
static PetscErrorCode DefaultList(PetscInt n, const PetscReal r[], const PetscInt i[], char d[], size_t len)
{
  PetscFunctionBegin;
  d[0] = 0;
  if (!r && !i) PetscCall(PetscStrncpy(d, "none", len));
  for (PetscInt k = 0; (r || i) && k < n; k++) {
    size_t l;
    PetscCall(PetscStrlen(d, &l));
    if (r) PetscCall(PetscSNPrintf(d + l, len - l, k ? ",%g" : "%g", (double)r[k]));
    else PetscCall(PetscSNPrintf(d + l, len - l, k ? ",%" PetscInt_FMT : "%" PetscInt_FMT, i[k]));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsRealArrayRange(const char prefix[], const char name[], const char help[], const char unit[], PetscInt nmin, PetscInt nmax, const PetscReal def[], PetscReal values[], PetscBool *set)
{
  char      full[256], d[256] = "";
  PetscBool flg;
  PetscInt  got = nmax;
  PetscFunctionBegin;
  PetscCall(FullName(prefix, name, full, sizeof full));
  PetscCall(Record(full));
  PetscCall(DefaultList(nmax, def, NULL, d, sizeof d));
  PetscCall(Help(full, d, help, unit));
  if (def)
    for (PetscInt i = 0; i < nmax; i++) values[i] = def[i];
  PetscCall(PetscOptionsGetRealArray(NULL, NULL, full, values, &got, &flg));
  if (flg && (got < nmin || got > nmax)) {
    if (nmin == nmax) SETERRQ(options_comm, PETSC_ERR_USER_INPUT, "Option %s: expected %" PetscInt_FMT " comma-separated values, got %" PetscInt_FMT " (%s)", full, nmax, got, help);
    SETERRQ(options_comm, PETSC_ERR_USER_INPUT, "Option %s: expected %" PetscInt_FMT " to %" PetscInt_FMT " comma-separated values, got %" PetscInt_FMT " (%s)", full, nmin, nmax, got, help);
  }
  for (PetscInt i = 0; flg && i < got; i++)
    if (PetscIsInfOrNanReal(values[i])) SETERRQ(options_comm, PETSC_ERR_USER_INPUT, "Option %s: value %" PetscInt_FMT " is not a finite number", full, i + 1);
  if (set) *set = flg;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsRealArray(const char prefix[], const char name[], const char help[], const char unit[], PetscInt n, const PetscReal def[], PetscReal values[], PetscBool *set)
{
  PetscFunctionBegin;
  PetscCall(TdOptionsRealArrayRange(prefix, name, help, unit, n, n, def, values, set));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsIntArray(const char prefix[], const char name[], const char help[], PetscInt n, const PetscInt def[], PetscInt values[], PetscBool *set)
{
  char      full[256], d[256] = "";
  PetscBool flg;
  PetscInt  got = n;
  PetscFunctionBegin;
  PetscCall(FullName(prefix, name, full, sizeof full));
  PetscCall(Record(full));
  PetscCall(DefaultList(n, NULL, def, d, sizeof d));
  PetscCall(Help(full, d, help, NULL));
  if (def)
    for (PetscInt i = 0; i < n; i++) values[i] = def[i];
  PetscCall(PetscOptionsGetIntArray(NULL, NULL, full, values, &got, &flg));
  if (flg && got != n) SETERRQ(options_comm, PETSC_ERR_USER_INPUT, "Option %s: expected %" PetscInt_FMT " comma-separated integers, got %" PetscInt_FMT " (%s)", full, n, got, help);
  if (set) *set = flg;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsString(const char prefix[], const char name[], const char help[], const char def[], char value[], size_t len, PetscBool *set)
{
  char      full[256];
  PetscBool flg;
  PetscFunctionBegin;
  PetscCall(FullName(prefix, name, full, sizeof full));
  PetscCall(Record(full));
  PetscCall(Help(full, def && def[0] ? def : "none", help, NULL));
  if (def) PetscCall(PetscStrncpy(value, def, len));
  else value[0] = 0;
  PetscCall(PetscOptionsGetString(NULL, NULL, full, value, len, &flg));
  if (set) *set = flg;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsEnum(const char prefix[], const char name[], const char help[], const char *const choices[], PetscInt def, PetscInt *index, PetscBool *set)
{
  char      full[256], value[256], list[512] = "";
  PetscBool flg;
  PetscFunctionBegin;
  PetscCall(FullName(prefix, name, full, sizeof full));
  PetscCall(Record(full));
  for (PetscInt i = 0; choices[i]; i++) {
    PetscCall(PetscStrlcat(list, i ? "|" : "", sizeof list));
    PetscCall(PetscStrlcat(list, choices[i], sizeof list));
  }
  if (help_requested) PetscCall((*PetscHelpPrintf)(options_comm, "  %s <%s>: %s (one of %s)\n", full, choices[def], help, list));
  *index = def;
  PetscCall(PetscOptionsGetString(NULL, NULL, full, value, sizeof value, &flg));
  if (flg) {
    PetscBool found = PETSC_FALSE;
    for (PetscInt i = 0; choices[i] && !found; i++) {
      PetscCall(PetscStrcasecmp(value, choices[i], &found));
      if (found) *index = i;
    }
    if (!found) SETERRQ(options_comm, PETSC_ERR_USER_INPUT, "Option %s: unknown value '%s'; choose one of %s", full, value, list);
  }
  if (set) *set = flg;
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsNameList(const char prefix[], const char name[], const char help[], PetscInt *count, char (**names)[64])
{
  char      full[256], value[4096];
  PetscBool flg;
  PetscInt  n = 0;
  char     *p, *save = NULL;
  PetscFunctionBegin;
  PetscCall(FullName(prefix, name, full, sizeof full));
  PetscCall(Record(full));
  PetscCall(Help(full, "none", help, NULL));
  *count = 0;
  *names = NULL;
  PetscCall(PetscOptionsGetString(NULL, NULL, full, value, sizeof value, &flg));
  if (!flg) PetscFunctionReturn(0);
  for (p = value; *p; p++)
    if (*p == ',') n++;
  PetscCall(PetscCalloc1(n + 1, names));
  n = 0;
  for (p = strtok_r(value, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
    size_t l;
    while (*p == ' ') p++;
    PetscCall(PetscStrlen(p, &l));
    while (l > 0 && p[l - 1] == ' ') p[--l] = 0;
    if (!l) continue;
    if (l > 63) SETERRQ(options_comm, PETSC_ERR_USER_INPUT, "Option %s: name '%s' is longer than 63 characters", full, p);
    for (size_t i = 0; i < l; i++)
      if (!(isalnum((unsigned char)p[i]) || p[i] == '_')) SETERRQ(options_comm, PETSC_ERR_USER_INPUT, "Option %s: name '%s' may contain only letters, digits and '_' (it becomes an option prefix)", full, p);
    PetscCall(PetscStrncpy((*names)[n++], p, 64));
  }
  *count = n;
  PetscFunctionReturn(0);
}

/* Options that PETSc itself reads at start-up, in solves or at finalisation (and the graph
   partitioner's, -partition_mat_partitioning_*, read only when it runs: on several ranks, not on
   a restart that keeps its checkpoint's partition). */
static PetscBool IsPetscOption(const char name[])
{
  static const char *prefixes[] = {"snes_", "ksp_", "pc_", "mat_", "partition_mat_", "vec_", "log", "malloc", "options_", "info", "help", "version", "on_error", "error_output", "fp_trap", "memory_", "objects_", "nox", "check_", "saws", "yaml", "citations", "skip_petscrc", "start_in_debugger", "debugger", "stop_for_debugger", "python", "mpi_", "omp_", "viewer_", "draw_", "is_", "sf_", "fieldsplit_", "sub_", "redundant_", "gamg_", "mg_", "ancf_", "coupled_", "ts_", "tao_", "dm_", "petsc", "use_gpu_aware_mpi", "no_signal_handler", "display", "x_virtual", "history", "compare", "device_", "use_", "blas", "matmatmult_", "matproduct_", "mumps_", "hypre_", "bv_", "em_", "eps_", "st_", "test_"};
  for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++) {
    size_t l = strlen(prefixes[i]);
    if (!strncmp(name, prefixes[i], l)) return PETSC_TRUE;
  }
  return PETSC_FALSE;
}

static PetscInt EditDistance(const char a[], const char b[])
{
  PetscInt la = (PetscInt)strlen(a), lb = (PetscInt)strlen(b), prev[257], cur[257];
  if (la > 256 || lb > 256) return PETSC_MAX_INT;
  for (PetscInt j = 0; j <= lb; j++) prev[j] = j;
  for (PetscInt i = 1; i <= la; i++) {
    cur[0] = i;
    for (PetscInt j = 1; j <= lb; j++) {
      PetscInt sub = prev[j - 1] + (a[i - 1] != b[j - 1]);
      PetscInt del = prev[j] + 1, ins = cur[j - 1] + 1;
      cur[j]       = PetscMin(sub, PetscMin(del, ins));
    }
    for (PetscInt j = 0; j <= lb; j++) prev[j] = cur[j];
  }
  return prev[lb];
}

PetscErrorCode TdOptionsCheckUnknown(MPI_Comm comm)
{
  PetscInt n;
  char   **names, **values;
  PetscFunctionBegin;
  PetscCall(PetscOptionsLeftGet(NULL, &n, &names, &values));
  for (PetscInt i = 0; i < n; i++) {
    const char *best = NULL;
    PetscInt    bestd = PETSC_MAX_INT;
    PetscBool   known = PETSC_FALSE;
    if (IsPetscOption(names[i])) continue;
    for (PetscInt r = 0; r < registry_count && !known; r++) {
      PetscInt d;
      if (!strcmp(registry[r], names[i])) known = PETSC_TRUE; /* read, but only under a condition */
      d = EditDistance(names[i], registry[r]);
      if (d < bestd) {
        bestd = d;
        best  = registry[r];
      }
    }
    if (known) continue;
    if (best && bestd <= PetscMax(3, (PetscInt)strlen(names[i]) / 3)) {
      char msg[512];
      PetscCall(PetscSNPrintf(msg, sizeof msg, "Unknown option -%s; did you mean -%s? (tribodyn -help lists every option)", names[i], best));
      PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s", msg);
    } else {
      char msg[512];
      PetscCall(PetscSNPrintf(msg, sizeof msg, "Unknown option -%s (tribodyn -help lists every option; it is not read by any body, film, load, joint or sensor named in -bodies, -films, -loads, -joints, -sensors)", names[i]));
      PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
      SETERRQ(comm, PETSC_ERR_USER_INPUT, "%s", msg);
    }
  }
  PetscCall(PetscOptionsLeftRestore(NULL, &n, &names, &values));
  PetscFunctionReturn(0);
}

PetscErrorCode TdOptionsAllString(char **str)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsGetAll(NULL, str));
  PetscFunctionReturn(0);
}
