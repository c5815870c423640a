FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1

RUN apt-get update \
    && apt-get install -y --no-install-recommends gnugo build-essential \
    && rm -rf /var/lib/apt/lists/*

WORKDIR /app

COPY requirements.txt .
RUN pip install -r requirements.txt

COPY . .
RUN python setup.py build_ext --inplace
# Compressed static files with hashed names, served by the web process itself (WhiteNoise).  The
# key here only lets the settings load for this one command; no image keeps it.
RUN GOWEB_ENV=production DJANGO_SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput -v0

# Run as a user of its own; /data (the `secrets` volume) keeps the deployment's secret key.
RUN useradd --system --uid 10001 --home-dir /app goweb && mkdir /data && chown goweb /data
USER goweb

# Production unless told otherwise: the container refuses to start without a secret key
# (DJANGO_SECRET_KEY, or GOWEB_SECRET_KEY_FILE on a volume).
ENV GOWEB_ENV=production
EXPOSE 8000
CMD ["python", "-m", "goweb.webserver", "-b", "0.0.0.0", "-p", "8000", "goweb.asgi:application"]
